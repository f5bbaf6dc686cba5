"""The builders: dataset and job names (`naming`), custom facets (`facets`), the run-event
builder and notes on events of other spec versions."""
