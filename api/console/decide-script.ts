/**
 * The script of a request's page (served as /app/assets/decide.js, after @simplewebauthn/browser and
 * console.js): Approve or Reject asks the server for a challenge bound to this request, its snapshot's
 * digest and the decision, has the passkey sign it (user verification required), and posts the
 * assertion; the server verifies it and runs the decision, and the page then shows how it ended.
 * Without it (or without passkeys) the page says that deciding needs a passkey.
 */
export const DECIDE_JS = `(function () {
  'use strict';
  var wa = window.SimpleWebAuthnBrowser;
  var box = document.querySelector('[data-decide]');
  if (!box || !wa || !wa.browserSupportsWebAuthn()) return;
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute('content') : '';
  var out = box.querySelector('[data-status]');
  var buttons = box.querySelectorAll('button[data-decision]');

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (answer) {
        if (!res.ok) throw new Error(answer.error || 'Not allowed');
        return answer;
      });
    });
  }

  function busy(yes) { buttons.forEach(function (b) { b.disabled = yes; }); }

  // A closed or timed-out prompt is the person's choice: nothing was decided.
  function why(err) {
    var name = err && (err.name || (err.cause && err.cause.name));
    if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey prompt was closed before it finished: nothing was decided.';
    return ((err && err.message) || 'Not allowed') + '. Nothing was decided; reload the page to see where the request stands.';
  }

  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      var decision = button.getAttribute('data-decision');
      var reason = box.querySelector('[name="reason"]');
      busy(true);
      out.textContent = 'Confirm with your passkey to ' + decision + ' this request…';
      post(box.getAttribute('data-challenge'), { decision: decision })
        .then(function (options) { return wa.startAuthentication({ optionsJSON: options }); })
        .then(function (response) {
          out.textContent = decision === 'approve' ? 'Approved: running it…' : 'Rejecting…';
          return post(box.getAttribute('data-decide'), {
            decision: decision,
            reason: reason ? reason.value : '',
            digest: box.getAttribute('data-digest'),
            response: response,
          });
        })
        .then(function (answer) { window.location.assign(answer.redirect); })
        .catch(function (err) { out.textContent = why(err); busy(false); });
    });
  });
})();
`;
