"""The model: normalized records, merged papers, authors, slugs, content pages and the site."""
