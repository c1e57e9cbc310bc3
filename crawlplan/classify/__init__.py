"""Document classification: the classifier registry, the model cache, fastText scoring that is
safe under numpy 2, batched scoring on Spark, and demo models for runs without real ones."""
