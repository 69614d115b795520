"""Scraped text made readable: plain text for keys and metadata, rich HTML with MathML for pages."""
