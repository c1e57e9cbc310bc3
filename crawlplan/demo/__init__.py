"""The embedded demo crawl (placeholder until the generator lands)."""
