"""What builds remember between runs: digests, stores, the manifest, inputs and terms."""
