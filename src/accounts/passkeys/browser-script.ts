/**
 * The browser half of the passkey forms, served as a static script (the CSP
 * allows no inline script). It runs on forms marked `data-passkey`:
 * `sign-in` (the login page) or `register` (the admin Passkeys page). On
 * submit it asks the form's `data-passkey-options` URL for a challenge
 * (posting the form's CSRF field), runs the ceremony with
 * `@simplewebauthn/browser` (loaded before it, as `SimpleWebAuthnBrowser`),
 * puts the answer into the form's `challenge_id` and `response` fields and
 * submits the form: the server's answer is a normal page, so every outcome
 * is shown the way the rest of the pages show it. Without JavaScript the
 * form posts as it is and the server says a passkey needs JavaScript.
 * @module
 */
export const PASSKEYS_SCRIPT = String.raw`(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;

  function show(form, message) {
    var box = form.querySelector('[data-passkey-error]');
    if (box === null) return;
    box.textContent = message;
    box.className = 'error';
    box.hidden = false;
  }

  function messageOf(error) {
    var name = error && error.name;
    var code = error && error.code;
    if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return 'This device already holds a passkey for this account.';
    if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey request was cancelled or timed out. Try again.';
    if (name === 'SecurityError') return 'This browser refused the passkey request for this address. Open the server at its own address.';
    return 'Your browser could not use a passkey here.';
  }

  function begin(form) {
    var button = form.querySelector('button[type=submit]');
    if (button !== null) button.disabled = true;
    var done = function () { if (button !== null) button.disabled = false; };
    var body = new URLSearchParams();
    body.set('_csrf', form.elements._csrf.value);
    var request = { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'application/json' } };
    return fetch(form.getAttribute('data-passkey-options'), request)
      .then(function (response) {
        if (response.status === 403) throw { page: 'The page expired. Reload it and try again.' };
        if (!response.ok) throw { page: 'The server could not start a passkey request. Try again.' };
        return response.json();
      })
      .then(function (start) {
        var options = { optionsJSON: start.options };
        var register = form.getAttribute('data-passkey') === 'register';
        var ceremony = register ? lib.startRegistration(options) : lib.startAuthentication(options);
        return ceremony.then(function (answer) {
          form.elements.challenge_id.value = start.challengeId;
          form.elements.response.value = JSON.stringify(answer);
          form.submit();
        });
      })
      .catch(function (error) {
        done();
        show(form, error && error.page ? error.page : messageOf(error));
      });
  }

  var forms = document.querySelectorAll('form[data-passkey]');
  for (var i = 0; i < forms.length; i += 1) {
    (function (form) {
      if (!lib || !lib.browserSupportsWebAuthn()) {
        show(form, 'This browser cannot use passkeys.');
        return;
      }
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        begin(form);
      });
    })(forms[i]);
  }
})();
`;
