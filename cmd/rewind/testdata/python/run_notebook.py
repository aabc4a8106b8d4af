"""Executes a notebook with nbclient, as Jupyter would, and writes the
executed copy: argv[1] the notebook, argv[2] the folder it runs in, argv[3]
where the executed notebook goes. Used by cmd/rewind's TestNotebookRuns."""
import sys

import nbformat
from nbclient import NotebookClient

nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(nb, sys.argv[3])
