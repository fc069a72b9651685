"""The game's classes and jobs: a small copy of its ClassJob sheet, as game data (W1).

    ClassJob    one row: id, abbreviation, the sheet's (lower-case) name, role, and which class a job
                grows from; `title` is the name as the game shows it ("White Mage")
    CLASS_JOBS  every class and job a character levels, in the sheet's order (ids 1 to 42)
    find_class_job("war" | "Warrior" | "21")   a row by abbreviation, name or id
    shares_level(a, b)   whether two rows share their experience (a class and its jobs)
    exp_to_next(level)   the experience a level needs (the simulator's curve; 0 at the level cap)

The ids, abbreviations, names and roles are the game's. A job and the class it grows from share
one level (the sheet's ExpArrayIndex): Marauder and Warrior, Arcanist, Summoner and Scholar. Jobs
with no class (Dark Knight, ...) stand alone. Crafters and gatherers have role 0; crafters have a
desynthesis skill.
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = ["CLASS_JOBS", "MAX_LEVEL", "ClassJob", "exp_to_next", "find_class_job", "shares_level"]

MAX_LEVEL: Final = 100
"""The level cap."""


class ClassJob(NamedTuple):
    """One class or job of the game, as the ClassJob sheet has it: a row of `CLASS_JOBS`.

    `find_class_job("WHM")` is `ClassJob(id=24, abbreviation='WHM', name='white mage', role=4, parent=6,
    is_job=True, crafter=False)`: White Mage, a healer, grows from Conjurer (6).
    """

    id: int
    abbreviation: str
    name: str
    """As the sheet holds it: lower case ("white mage"); `title` is what the game shows."""
    role: int
    """1 tank, 2 melee, 3 ranged (physical or magical), 4 healer, 0 crafter or gatherer."""
    parent: int
    """The class a job grows from; its own id for a class, or a job that has none."""
    is_job: bool
    crafter: bool = False

    @property
    def title(self) -> str:
        """The name as the game shows it: "White Mage"."""
        return " ".join(word[:1].upper() + word[1:] for word in self.name.split(" "))


def _row(row: int, abbreviation: str, name: str, role: int, parent: int = 0, *, job: bool = False) -> ClassJob:
    return ClassJob(row, abbreviation, name, role, parent or row, job, crafter=8 <= row <= 15)


CLASS_JOBS: Final[tuple[ClassJob, ...]] = (
    _row(1, "GLA", "gladiator", 1),
    _row(2, "PGL", "pugilist", 2),
    _row(3, "MRD", "marauder", 1),
    _row(4, "LNC", "lancer", 2),
    _row(5, "ARC", "archer", 3),
    _row(6, "CNJ", "conjurer", 4),
    _row(7, "THM", "thaumaturge", 3),
    _row(8, "CRP", "carpenter", 0),
    _row(9, "BSM", "blacksmith", 0),
    _row(10, "ARM", "armorer", 0),
    _row(11, "GSM", "goldsmith", 0),
    _row(12, "LTW", "leatherworker", 0),
    _row(13, "WVR", "weaver", 0),
    _row(14, "ALC", "alchemist", 0),
    _row(15, "CUL", "culinarian", 0),
    _row(16, "MIN", "miner", 0),
    _row(17, "BTN", "botanist", 0),
    _row(18, "FSH", "fisher", 0),
    _row(19, "PLD", "paladin", 1, 1, job=True),
    _row(20, "MNK", "monk", 2, 2, job=True),
    _row(21, "WAR", "warrior", 1, 3, job=True),
    _row(22, "DRG", "dragoon", 2, 4, job=True),
    _row(23, "BRD", "bard", 3, 5, job=True),
    _row(24, "WHM", "white mage", 4, 6, job=True),
    _row(25, "BLM", "black mage", 3, 7, job=True),
    _row(26, "ACN", "arcanist", 3),
    _row(27, "SMN", "summoner", 3, 26, job=True),
    _row(28, "SCH", "scholar", 4, 26, job=True),
    _row(29, "ROG", "rogue", 2),
    _row(30, "NIN", "ninja", 2, 29, job=True),
    _row(31, "MCH", "machinist", 3, job=True),
    _row(32, "DRK", "dark knight", 1, job=True),
    _row(33, "AST", "astrologian", 4, job=True),
    _row(34, "SAM", "samurai", 2, job=True),
    _row(35, "RDM", "red mage", 3, job=True),
    _row(36, "BLU", "blue mage", 3, job=True),
    _row(37, "GNB", "gunbreaker", 1, job=True),
    _row(38, "DNC", "dancer", 3, job=True),
    _row(39, "RPR", "reaper", 2, job=True),
    _row(40, "SGE", "sage", 4, job=True),
    _row(41, "VPR", "viper", 2, job=True),
    _row(42, "PCT", "pictomancer", 3, job=True),
)
"""Every class and job a character levels, in the ClassJob sheet's order (ids 1 to 42): crafters and
gatherers (role 0) among them. Find one by abbreviation, name or id with `find_class_job`."""

_BY_KEY: Final[dict[str, ClassJob]] = {
    key: row for row in CLASS_JOBS for key in (row.abbreviation.casefold(), row.name, str(row.id))
}


def find_class_job(text: str) -> ClassJob | None:
    """The class or job an abbreviation ("WAR"), a name ("Warrior", "white mage") or an id names."""
    return _BY_KEY.get(" ".join(text.split()).casefold())


def shares_level(a: ClassJob, b: ClassJob) -> bool:
    """Whether `a` and `b` level together: the same row, or a class and a job that grows from it."""
    return a.parent == b.parent


def exp_to_next(level: int) -> int:
    """Experience from `level` to the next one: the simulator's own curve (the game's ParamGrow sheet
    is not copied here), rising with the level; 0 at the level cap."""
    if level >= MAX_LEVEL:
        return 0
    level = max(level, 1)
    return int(round(3.0 * level**2.2)) * 100 + 200
