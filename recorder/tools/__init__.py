"""Tools around the pipeline: diff.py (`recorder diff`, what changed in the outputs), pr_record.py (`recorder
check` and `pr-record`, what lags behind the sources), compat.py (`make compat`, other Transformers releases)."""
