"""A node for the SIGKILL test: text lengths of the documents, computed in Python workers that
can be held at a gate so the test kills the run while this node is writing.

The gate is a folder named by CRAWLPLAN_TEST_GATE: a worker touches ``started`` and waits for
``release`` to appear (at most five minutes). Without the variable the node just runs.
"""

import os
import time

import pandas as pd


def _lengths(batches):
    gate = os.environ.get("CRAWLPLAN_TEST_GATE")
    for pdf in batches:
        if gate:
            open(os.path.join(gate, "started"), "a").close()
            deadline = time.time() + 300
            while not os.path.exists(os.path.join(gate, "release")) and time.time() < deadline:
                time.sleep(0.2)
        yield pd.DataFrame({"record_id": pdf["record_id"], "chars": pdf["text"].str.len().astype("int64")})


def lengths(ctx):
    docs = ctx.read("documents").select("record_id", "text")
    return {"doc_lengths": docs.mapInPandas(_lengths, "record_id string, chars long")}
