"""Worker failures reach the app's one handler: screens that start workers mix this in.

Textual posts `Worker.StateChanged` only to the node that started the worker (it does not bubble),
so each such screen sends an ERROR up as `WorkerErrored`; the app's one handler shows one error line.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState


class ForwardsWorkerErrors:
    """Mixin for a Screen: a worker that raised is reported by the app, never a crash or a silent stop."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            from workbench.tui.messages import WorkerErrored

            self.post_message(WorkerErrored(self, event.worker))  # type: ignore[attr-defined]
