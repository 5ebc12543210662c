/**
 * The widths a stored photo's sized copies come in (`?w=N`): the media
 * feature makes them, the entry pages and the admin list them in `srcset`.
 * @module
 */
export const PHOTO_WIDTHS: readonly number[] = [320, 640, 1280, 2048];
