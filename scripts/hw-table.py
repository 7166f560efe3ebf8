#!/usr/bin/env python3
"""Markdown summary of a hardware campaign (the JSON of `ptxmm run --json` / ptxmm-hw --json).

Usage: scripts/hw-table.py CAMPAIGN.json MODEL_STATES.jsonl [--root DIR]

MODEL_STATES.jsonl is the output of `ptxmm check --json --engine smt --model models/ptx.cat litmus/`
(the model's observation of each test's `exists` outcome, matched by test name and Hash, as mcompare7
matches logs: herd7's hash leaves out the name and the condition, so two tests of one program share it).
Prints the counts (ran,
skipped by reason, errors, forbidden-and-seen) and one table row per test that ran: model observation,
hardware observation, instances showing the outcome, states seen / allowed, forbidden & seen, allowed
never seen.
"""
import collections
import json
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    campaign = json.load(open(sys.argv[1]))
    model = {}
    for line in open(sys.argv[2]):
        line = line.strip()
        if line.startswith("{"):
            rec = json.loads(line)
            model[(rec["test"], rec["hash"])] = rec
    results = campaign["results"]
    status = collections.Counter(r["status"] for r in results)
    reasons = collections.Counter()
    for r in results:
        if r["status"] == "skipped":
            reason = r.get("reason", "")
            if "sm_100a" in reason:
                reasons["needs sm_100a (clusterlaunchcontrol; the device is sm_90)"] += 1
            elif "no PTX encoding" in reason:
                reasons["uses fence.proxy.surface/texture/constant (mixed-proxy model only, no PTX encoding)"] += 1
            elif ".const state space" in reason:
                reasons["constant-proxy alias of a written location (.const is host-initialised, read-only)"] += 1
            else:
                reasons[reason.split(": error: ")[-1][:120]] += 1
    ran = [r for r in results if r["status"] == "ok"]
    forbidden = sum(r.get("model", {}).get("forbiddenSeen", 0) for r in ran)
    instances = sum(r.get("instances", 0) for r in ran)
    print(f"{len(results)} tests: **{len(ran)} ran** ({instances:,} instances in all); "
          f"{status['skipped']} skipped; {status['error']} error(s). **Forbidden-and-seen states: {forbidden}**.")
    print()
    for reason, n in reasons.most_common():
        print(f"* skipped {n} × {reason}")
    for r in results:
        if r["status"] == "error":
            print(f"* error: {r['test']}: {r.get('reason', '')[:200]}")
    print()
    allowed_seen = sum(1 for r in ran if model.get((r["test"], r["hash"]), {}).get("observation") != "Never" and r["positive"] > 0)
    allowed_never = sum(1 for r in ran if model.get((r["test"], r["hash"]), {}).get("observation") != "Never" and r["positive"] == 0)
    print(f"Tests whose outcome the model allows: {allowed_seen} showed it, {allowed_never} never did; "
          f"tests whose outcome the model forbids that showed it: "
          f"{sum(1 for r in ran if model.get((r['test'], r['hash']), {}).get('observation') == 'Never' and r['positive'] > 0)}.")
    print()
    print("| test | model | hardware | outcome seen | instances | states seen / allowed | forbidden & seen | allowed, never seen |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(ran, key=lambda r: r["file"]):
        m = r.get("model", {})
        comp = m.get("comparison", [])
        seen = sum(1 for c in comp if c["seen"] > 0)
        allowed = sum(1 for c in comp if c["allowed"])
        obs = model.get((r["test"], r["hash"]), {}).get("observation", "?")
        name = r["file"].split("litmus/", 1)[-1]
        print(f"| {name} | {obs} | {r['observation']} | {r['positive']:,} | {r['instances']:,} | "
              f"{seen} / {allowed} | {m.get('forbiddenSeen', 0)} | {m.get('allowedNeverSeen', 0)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
