"""What the policy says of connections it lets through: records, sinks, the journal, sightings."""
