/**
 * The features only the HTTP door has, made from the core's services: the
 * sign-in pages, the IndieAuth endpoints, the public profile, Micropub and
 * media, the admin (given the part of the core it needs) and the entry
 * pages. Each is a factory's `{ routes, … }`; the plugin registers them.
 * @module
 */
import { createAccounts } from '../accounts/feature.js';
import { createAdmin } from '../admin/feature.js';
import { CITE_MAX_BYTES } from '../admin/write/cite.js';
import type { Accounts } from '../contracts/accounts.js';
import { createEntries } from '../entries/feature.js';
import { loadEntryTemplates, type EntryPagesOption } from '../entries/load-templates.js';
import { createIndieAuth } from '../indieauth/feature.js';
import { createMedia } from '../media/feature.js';
import { createMicropub } from '../micropub/feature.js';
import { outboundFor } from '../outbound/fetch.js';
import { createProfile } from '../profile/feature.js';
import { userDirectory } from '../content/handlers/files/templates.js';
import { createCsrf } from '../web/csrf.js';
import type { Core } from './core.js';

export type HttpFeatures = Awaited<ReturnType<typeof createHttpFeatures>>;

export async function createHttpFeatures(
  core: Core,
  options: { hostAccounts: Accounts | undefined; entryPages: EntryPagesOption | undefined },
) {
  const { config, clock, signer, stores, meter, log } = core;
  const secureCookies = config.baseUrl.startsWith('https:');
  // the core's parts, bottom first
  const passkeys = await core.passkeys();
  const { clientPolicy, bearer } = await core.access();
  const { content, mediaStorage } = await core.content();
  const webmention = await core.webmention();
  // made before the worker starts: its job kind must be registered by then
  const syndication = await core.syndication();
  const doctor = await core.doctor();

  const entryPages = options.entryPages !== undefined && options.entryPages !== false;
  const csrf = createCsrf({ signer, clock, secureCookies });
  const accounts = createAccounts({ accounts: core.accounts, users: core.users, passkeys, config, signer, clock, csrf, secureCookies });
  const profile = createProfile({
    service: core.profiles,
    users: core.users,
    baseUrl: config.baseUrl,
    entryPages,
  });
  const indieauth = createIndieAuth({
    config,
    clock,
    stores,
    accounts: core.accounts,
    profiles: core.profiles,
    tokens: core.tokens,
    clientPolicy,
    bearer,
    csrf,
    meter,
  });
  const media = createMedia({ config, clock, storage: mediaStorage, repository: stores.media, bearer, content, meter });
  // entries published through Micropub send webmentions (INDIEWEB_WEBMENTION_SEND_ON_PUBLISH) and go to the silos chosen
  const listeners = [webmention.onPublished, syndication.onPublished].filter((listener) => listener !== undefined);
  const micropub = createMicropub({
    config,
    content,
    bearer,
    media,
    meter,
    onPublished: async (event) => {
      // each listener is told, whatever another did; the first failure is what the route logs
      const outcomes = await Promise.allSettled(listeners.map((listener) => listener(event)));
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
    syndicationTargets: (user) => syndication.service.syndicateTo(user.id),
  });
  // the admin's Write area looks at the pages a post cites (title, author)
  const writeOutbound = outboundFor(config, {
    maxBytes: CITE_MAX_BYTES,
    onOutcome: meter.outboundFetch,
  });
  const admin = createAdmin({
    accounts: core.accounts,
    contentHandler: {
      kind: content.kind,
      setting: config.micropubHandler,
      // the pages read the database handler's table or the in-memory handler's store
      pages: entryPages && (content.kind === 'database' || content.kind === 'memory'),
      ...(content.kind === 'files' ? { siteDirectory: (user) => userDirectory(config.files.contentDir, config.files.userDir, user) } : {}),
    },
    users: core.users,
    passkeys,
    proofs: accounts.proofs,
    signInThrottle: accounts.signInThrottle,
    csrf,
    baseUrl: config.baseUrl,
    tokens: core.tokens,
    clientInfo: indieauth.clientInfo,
    profiles: core.profiles,
    webmentions: webmention.service,
    webmentionTokens: webmention.readTokens,
    webmentionModeration: webmention.moderation,
    webhooks: webmention.webhooks,
    webmentionSending: { sender: webmention.publishing, mode: webmention.sendMode },
    media: media.library,
    mediaUpload: media.formUpload,
    mediaLimits: config.media,
    uploads: { pipeline: media.pipeline, limits: config.media, fieldBytes: config.maxBodyBytes, requestLimits: config.limits },
    outbound: writeOutbound,
    doctor,
    syndication: syndication.service,
  });
  const entries = createEntries({
    enabled: entryPages,
    // the in-memory handler's entries when it is the handler, else the database handler's table
    entries: content.entryPages ?? stores.entries,
    findUserByName: async (name) => {
      if (core.users !== null) return core.users.findByName(name);
      const everyone = (await options.hostAccounts?.listUsers?.()) ?? [];
      return everyone.find((user) => user.name === name) ?? null;
    },
    findUserById: async (id) => core.accounts.findUser(id),
    profiles: core.profiles,
    listMentions: (filter) => webmention.service.listPublic(filter),
    countMentions: (target) => webmention.service.countPublic(target),
    baseUrl: config.baseUrl,
    photoBucketUrl: media.photoBucketUrl,
    templates: await loadEntryTemplates(options.entryPages, config, log),
  });

  return {
    accounts,
    profile,
    indieauth,
    media,
    micropub,
    webmention,
    admin,
    entries,
    async close(): Promise<void> {
      await indieauth.close();
      await writeOutbound.close();
    },
  };
}
