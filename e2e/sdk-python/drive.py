"""Drives the real posthog-python SDK against a Burrow server for e2e/sdk-python.spec.ts.

Input (argv[1], JSON): host, key (the project key), personal_key, run (a suffix for ids).
Output (stdout, JSON): what was sent (event uuids the SDK returned, by name), the flag
answers of a remote and a locally evaluating client, and every error the SDK reported.
"""
import json
import sys
import uuid
from datetime import datetime, timezone

from posthog import Posthog

config = json.loads(sys.argv[1])
host, key, run = config["host"], config["key"], config["run"]
errors = []


def on_error(error, items):
    errors.append(f"{type(error).__name__}: {error} ({len(items)} items)")


user, anon = f"py-user-{run}", f"py-anon-{run}"
order_uuid = str(uuid.uuid4())
sent = {}

# Live events: batched (two per request), sent by the SDK's consumer thread.
client = Posthog(key, host=host, on_error=on_error, flush_at=2, flush_interval=0.05, max_retries=0)
sent["viewed pricing"] = client.capture("viewed pricing", distinct_id=anon, properties={"plan": "free"})
sent["order placed"] = client.capture(
    "order placed",
    distinct_id=user,
    uuid=order_uuid,
    properties={"amount": 42.5, "currency": "EUR", "items": ["a", "b"], "shipping": {"express": True, "country": "DE"}, "note": "grüße ✓"},
)
sent["$set"] = client.set(distinct_id=user, properties={"email": f"{user}@example.com", "plan": "pro"})
sent["$create_alias"] = client.alias(previous_id=anon, distinct_id=user)
sent["$groupidentify"] = client.group_identify("company", "acme", {"name": "Acme Inc", "employees": 50})
sent["report exported"] = client.capture("report exported", distinct_id=user, groups={"company": "acme"}, properties={"format": "csv"})
client.shutdown()

# A historical migration, gzip'd: stored at the times given, marked as historical.
historical = Posthog(key, host=host, on_error=on_error, flush_at=3, flush_interval=0.05, max_retries=0, gzip=True, historical_migration=True)
old_times = [datetime(2021, 3, 4, 5, 6, 7, tzinfo=timezone.utc), datetime(2022, 11, 12, 13, 14, 15, 123000, tzinfo=timezone.utc)]
sent["imported purchase"] = [historical.capture("imported purchase", distinct_id=user, timestamp=at, properties={"index": i}) for i, at in enumerate(old_times)]
historical.shutdown()

# Flags: remote (/flags/?v=2) and local (the definitions, with the personal key).
shopper = {"email": "py@example.com"}
remote = Posthog(key, host=host, on_error=on_error, flush_at=1, flush_interval=0.05, max_retries=0)
flags = {
    "checkout": remote.get_feature_flag("checkout", "py-flags", person_properties=shopper),
    "checkout_payload": remote.get_feature_flag_payload("checkout", "py-flags", person_properties=shopper),
    "banner": remote.feature_enabled("beta-banner", "py-flags"),
    "banner_payload": remote.get_feature_flag_payload("beta-banner", "py-flags"),
    "nobody": remote.get_feature_flag("nobody", "py-flags"),
    "all": remote.get_all_flags("py-flags", person_properties=shopper),
}
remote.shutdown()

local = Posthog(key, host=host, personal_api_key=config["personal_key"], on_error=on_error, poll_interval=600, flush_at=1, flush_interval=0.05, max_retries=0)
local.load_feature_flags()
flags["local_all"] = local.get_all_flags("py-flags", person_properties=shopper, only_evaluate_locally=True)
flags["local_all_and_payloads"] = local.get_all_flags_and_payloads("py-flags", person_properties=shopper, only_evaluate_locally=True)
flags["local_other"] = local.get_feature_flag("checkout", "py-local", person_properties={"email": "x@other.org"}, only_evaluate_locally=True)
flags["local_definitions"] = len(local.feature_flags or [])
local.shutdown()

print(json.dumps({"user": user, "anon": anon, "order_uuid": order_uuid, "sent": sent, "flags": flags, "errors": errors}, default=str))
