"""HTML response records to documents: filtering, charset decoding, main text, language."""
