"""The Textual workbench: renders core state only; workers run hosts and batches and post messages."""
