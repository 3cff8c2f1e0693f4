"""The Gradio app: ``config`` (how it runs: flags and environment variables), ``state`` (the shared model and
each visitor's session), ``page`` (the panels placed and wired), ``panels`` (one module per panel), ``answering``
(a turn of the conversation), ``render`` (HTML and charts from the trace), ``notebook`` (the reading notebook),
``static`` (styles and scripts). The engine never imports this package."""
