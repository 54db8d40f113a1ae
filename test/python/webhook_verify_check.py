"""Deliveries verified by the official Python libraries receivers use: standardwebhooks==1.1.0 and stripe==16.1.0.

Run by test/e2e/webhook-signing.test.ts with the interpreter tooling/python-tools.ts installs. Reads a
JSON list on stdin, each item a delivery as the test's receiver got it and a secret a receiver holds:
{"body": str, "headers": {name: value}, "secret": "whsec_..."}. For each it answers whether
`standardwebhooks.Webhook(secret).verify(body, headers)` accepted it (the Standard Webhooks headers) and
whether `stripe.Webhook.construct_event(body, headers["service-signature"], secret)` did (the service
scheme, Stripe's). A header the item lacks counts as not accepted. Prints one JSON list on stdout:
[{"standard": bool, "stripe": bool, "standard_error": str | null, "stripe_error": str | null}, ...].
"""

from __future__ import annotations

import json
import sys
from typing import Any

import stripe
from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def check_standard(item: dict[str, Any]) -> str | None:
    try:
        Webhook(item["secret"]).verify(item["body"], item["headers"])
        return None
    except WebhookVerificationError as err:
        return str(err)
    except ValueError as err:
        # binascii.Error: a secret from before Standard Webhooks' form (base64url) does not decode.
        return f"secret not in Standard Webhooks' form: {err}"



def check_stripe(item: dict[str, Any]) -> str | None:
    header = item["headers"].get("service-signature")
    if header is None:
        return "no service-signature header"
    try:
        stripe.Webhook.construct_event(item["body"], header, item["secret"])
        return None
    except stripe.SignatureVerificationError as err:
        return str(err)


def main() -> None:
    items = json.load(sys.stdin)
    results = []
    for item in items:
        standard_error = check_standard(item)
        stripe_error = check_stripe(item)
        results.append(
            {
                "standard": standard_error is None,
                "stripe": stripe_error is None,
                "standard_error": standard_error,
                "stripe_error": stripe_error,
            }
        )
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
