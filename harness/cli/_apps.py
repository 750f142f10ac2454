"""The typer apps every command module registers on; harness.cli assembles them."""
import typer

app = typer.Typer(
    name="epi",
    help="epiharness: run research agents through episodic paper tasks, trace every step, score and replay.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
sandbox_app = typer.Typer(help="The offline sandbox world: corpus, index, local site, scripted model.", no_args_is_help=True)
episodes_app = typer.Typer(help="Benchmark episode files: validate and describe.", no_args_is_help=True)
paper_app = typer.Typer(help="Look at what the tools see in any PDF.", no_args_is_help=True)

app.add_typer(sandbox_app, name="sandbox")
app.add_typer(episodes_app, name="episodes")
app.add_typer(paper_app, name="paper")


# Each server has its own default port, so the three can run side by side (a scripted model, the sandbox site and the
# viewer of the run they make); --port 0 picks a free one, and each prints the address it listens on.
SITE_PORT = 8765  # epi sandbox serve
MODEL_SERVER_PORT = 8766  # epi sandbox model-server
VIEWER_PORT = 8767  # epi view --serve


class UserError(Exception):
    """A mistake in the user's input: printed as a clear message, exit code 2, no traceback."""
