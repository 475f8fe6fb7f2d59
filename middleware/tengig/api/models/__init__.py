"""API models, one module per topic, named by middlewared's 25.10 rule: class ``TenGigResultsService``,
method ``query`` -> ``TenGigResultsQueryArgs`` / ``TenGigResultsQueryResult``. Inputs forbid unknown
keys and do not coerce (``"5"`` is not 5); every field says what it is. The Args model's fields are
the positional params, in order."""
