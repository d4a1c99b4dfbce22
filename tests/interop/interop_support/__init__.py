"""Helpers of the strata interop suite: canonical row encoding, the two reference engines
(pypaimon, pypaimon-rust), table shapes and input files, the strata CLI driver, and warehouse
inspection."""
