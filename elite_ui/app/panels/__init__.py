"""One module per panel of the page, each with ``create_ui`` (its components, as a small dataclass) and
``create_event_handlers`` (its events), in the manner of text-generation-webui's ``ui_*.py`` modules."""
