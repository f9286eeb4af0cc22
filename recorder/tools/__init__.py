"""Tools around the pipeline: diff.py (`recorder diff`, what changed in the outputs), pr_record.py (`recorder
pr-record`, record what a pull request left stale), compat.py (`make compat`, other Transformers releases),
pr_compat.py (`recorder pr-compat`, check the version table's rows a pull request left unchecked)."""
