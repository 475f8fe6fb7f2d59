"""Verdict: ceilings, targets, bottleneck and advice (pure functions)."""
