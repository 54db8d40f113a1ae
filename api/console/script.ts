/**
 * The console's own script (served as /app/assets/console.js): only what a browser must do itself,
 * the passkey ceremonies (through @simplewebauthn/browser, loaded before it) and asking before a
 * destructive form is sent. Every page works without it except those ceremonies, which say so.
 * Plain ES2020 for the browser, kept here as text so the build ships it with the server's code.
 */
export const CONSOLE_JS = `(function () {
  'use strict';
  var wa = window.SimpleWebAuthnBrowser;
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute('content') : '';
  var supported = !!(wa && wa.browserSupportsWebAuthn());
  document.querySelectorAll('[data-needs-webauthn]').forEach(function (el) { el.hidden = !supported; });
  document.querySelectorAll('[data-without-webauthn]').forEach(function (el) { el.hidden = supported; });

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body || {}),
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (answer) {
        if (!res.ok) throw new Error(answer.error || 'Not allowed');
        return answer;
      });
    });
  }

  function say(box, text) {
    var out = box.querySelector('[data-status]');
    if (out) out.textContent = text;
  }

  // A cancelled or timed-out prompt is the person's choice, not a fault: say so plainly.
  function why(err) {
    var name = err && (err.name || (err.cause && err.cause.name));
    if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey prompt was closed before it finished. Try again.';
    return (err && err.message) || 'Not allowed';
  }

  function ceremony(box, button, run) {
    button.disabled = true;
    say(box, 'Waiting for your passkey…');
    run()
      .then(function (answer) { window.location.assign(answer.redirect || '/app'); })
      .catch(function (err) { say(box, why(err)); button.disabled = false; });
  }

  document.querySelectorAll('[data-passkey-sign-in]').forEach(function (box) {
    var button = box.querySelector('button');
    if (!button) return;
    button.addEventListener('click', function () {
      ceremony(box, button, function () {
        return post(box.getAttribute('data-options')).then(function (options) {
          return wa.startAuthentication({ optionsJSON: options });
        }).then(function (response) {
          return post(box.getAttribute('data-verify'), { response: response });
        });
      });
    });
  });

  document.querySelectorAll('form[data-passkey-enrol]').forEach(function (form) {
    var button = form.querySelector('button');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!button) return;
      var name = form.querySelector('[name="name"]');
      ceremony(form, button, function () {
        return post(form.getAttribute('data-options')).then(function (options) {
          return wa.startRegistration({ optionsJSON: options });
        }).then(function (response) {
          return post(form.getAttribute('data-verify'), { name: name ? name.value : '', response: response });
        });
      });
    });
  });

  // A page that shows a secret once: its history entry becomes a GET of the same address, so a reload
  // (or a return to it) asks the list again rather than sending the form a second time.
  if (document.querySelector('[data-shown-once]')) window.history.replaceState(null, '', window.location.href);

  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
})();
`;
