"""WARC input: path listings, tolerant record reading, body decoding."""
