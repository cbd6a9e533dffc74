"""What a policy decides for a connection, its plan, and the private contexts that carry it out."""
