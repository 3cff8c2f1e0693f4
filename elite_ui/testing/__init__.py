"""What the tests and the benchmarks both use: ``files`` (epub and pdf files made on the fly), ``hostile``
(broken and odd books), ``languages`` (generated sample novels in French, German, Spanish and Chinese),
``browser`` (the app started for headless Chromium). Nothing here runs in the app."""
