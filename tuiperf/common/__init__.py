"""What every layer shares: the one error hierarchy, safe text, units, file locations and atomic writes."""
