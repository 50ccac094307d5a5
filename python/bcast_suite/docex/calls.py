"""A call the extractor found in a document: one torch call, its evaluated arguments, where it
is, and every claim the document makes about its outcome."""

from dataclasses import dataclass, field


@dataclass(eq=False)
class Call:
    fn: str
    args: list
    kwargs: dict
    line: int
    example: int
    hints: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    claims: list = field(default_factory=list)
    flags: tuple = ()
    raised: bool = False
    deterministic: bool = True

    def claim(self, quote, line, claim):
        """Records a claim once (the same claim from the same line is kept once)."""
        entry = {"quote": quote, "line": line, "claim": claim}
        if entry not in self.claims:
            self.claims.append(entry)


@dataclass(eq=False)
class IndexArg:
    """A getitem index tuple, already in the schema's form."""
    items: list
