"""The headless core: models, stream parsers, the scorer, records and summaries. No Textual here."""
