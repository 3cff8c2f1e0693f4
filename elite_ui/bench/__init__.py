"""The benchmark harness (``python -m elite_ui.bench``): ``cli`` (the commands), ``harness`` (running a question
set, resumable, and its summary), ``methods`` (what is compared), ``scoring`` (accuracy, F1, evidence
recall), ``datasets`` (our question format and converters), ``report`` (one HTML page comparing runs)."""
