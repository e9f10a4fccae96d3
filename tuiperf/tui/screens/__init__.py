"""Modal screens: help (keys), error details, sweep set-up."""
