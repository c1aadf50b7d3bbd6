"""Great Expectations suites, one module per table/view (named after it); run.py runs them all."""
