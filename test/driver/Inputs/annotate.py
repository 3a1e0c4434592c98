"""annotate.py FINDINGS.json OUT.json: writes run-time evidence into a
findings file the way ddp-harness does after running the flagged programs,
so the output-format tests can render annotated findings.

Evidence by check (and occurrence): ddp-unwrapped-forward diverged, with a
drift picture; ddp-unsynced-gradients a gradient-scale verdict with a picture
that does not exist; the first ddp-sampler-epoch finding same-order, its
picture an HTML file; the second one reshuffled, its picture broken XML."""
import json
import sys

findings = json.load(open(sys.argv[1]))
samplers = 0
for f in findings["findings"]:
    if f["check"] == "ddp-unwrapped-forward":
        f["runtime"] = {
            "verdict": "diverged",
            "evidence": "Ranks 0 and 1 hold different parameters from step 3 "
                        "on (max |W_r0 - W_r1| = 0.0123 at step 10) & the "
                        "gradients were never synced.",
            "svg": "drift.svg"}
    elif f["check"] == "ddp-unsynced-gradients":
        f["runtime"] = {"verdict": "consistent, gradient 2.00x the average",
                        "svg": "missing.svg"}
    elif f["check"] == "ddp-sampler-epoch":
        samplers += 1
        f["runtime"] = {"verdict": "same-order", "svg": "not-svg.svg",
                        "evidence": "Rank 0 consumed indices [3, 17, 42, ...] "
                                    "in every epoch."} \
            if samplers == 1 else {"verdict": "reshuffled", "svg": "broken.svg"}
json.dump(findings, open(sys.argv[2], "w"), indent=2)
