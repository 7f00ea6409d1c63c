"""The scrape queue: provider matches applied to the catalogue."""
