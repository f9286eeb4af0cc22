"""The commands around the pipeline: `recorder diff`, `pr-record`, `make compat`, `pr-compat`, `make serve`."""
