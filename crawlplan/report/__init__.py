"""The run report: one self-contained HTML page (inline CSS, charts as base64 PNGs) built from a
run's datasets and completion markers.

Split so the expensive part stays in Spark and the rest is testable without it:
``collect`` reduces every dataset to small pandas frames with Spark aggregations (never a whole
dataset to the driver), ``figures_*`` turn frames into matplotlib figures, ``build`` lays out the
page. A dataset the run did not produce becomes a visible box, never a failed report.
"""
