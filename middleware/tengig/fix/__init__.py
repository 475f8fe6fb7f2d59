"""Fix: what the verdict found, changed and proven. A typed proposal beside each advice whose cause is a
setting of the NAS (plan.py, pure), applied with its way back, re-measured, judged against the run's own
spread and kept or rolled back (apply.py, through the settings seam in settings.py)."""
