"""Reading the deployment files as their tools do: the Containerfile's final stage, compose files, the unit."""

from __future__ import annotations

import configparser
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).parents[1]
CONTAINERFILE = ROOT / "Containerfile"
COMPOSE_FILES = (ROOT / "compose.yaml", ROOT / "compose.postgres.yaml")
UNIT = ROOT / "deploy" / "reelhouse.service"


@dataclass
class Stage:
    """The instructions of one build stage (the last one is the image)."""

    base: str
    env: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    user: str | None = None
    volumes: list[str] = field(default_factory=list)
    exposed: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)
    healthcheck_options: dict[str, str] = field(default_factory=dict)
    entrypoint: list[str] = field(default_factory=list)
    cmd: list[str] = field(default_factory=list)
    stop_signal: str | None = None
    copies: list[str] = field(default_factory=list)


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuations joined and comments dropped."""
    logical: list[str] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append(pending + stripped)
        pending = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in logical]


def stages(text: str | None = None) -> list[Stage]:
    found: list[Stage] = []
    for name, args in _instructions(CONTAINERFILE.read_text() if text is None else text):
        if name == "FROM":
            found.append(Stage(base=args.split()[0]))
            continue
        stage = found[-1]
        if name == "ENV":
            stage.env.update(dict(pair.split("=", 1) for pair in shlex.split(args)))
        elif name == "RUN":
            stage.runs.append(args)
        elif name == "USER":
            stage.user = args.strip()
        elif name == "VOLUME":
            stage.volumes.extend(json.loads(args))
        elif name == "EXPOSE":
            stage.exposed.extend(args.split())
        elif name == "HEALTHCHECK":
            options, _, command = args.partition("CMD ")
            stage.healthcheck = json.loads(command)
            stage.healthcheck_options = dict(re.findall(r"--([\w-]+)=(\S+)", options))
        elif name == "ENTRYPOINT":
            stage.entrypoint = json.loads(args)
        elif name == "CMD":
            stage.cmd = json.loads(args)
        elif name == "STOPSIGNAL":
            stage.stop_signal = args.strip()
        elif name == "COPY":
            stage.copies.append(args)
    return found


def image() -> Stage:
    return stages()[-1]


def created_user(stage: Stage, name: str) -> tuple[int, int]:
    """(uid, gid) of ``name`` as the stage's useradd/groupadd make it."""
    runs = " ".join(stage.runs)
    uid = re.search(rf"useradd [^&]*--uid (\d+)[^&]* {name}\b", runs)
    gid = re.search(rf"groupadd [^&]*--gid (\d+) {name}\b", runs)
    assert uid and gid, f"no useradd/groupadd with fixed ids for {name}"
    return int(uid.group(1)), int(gid.group(1))


def compose(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def unit() -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text())
    return parser


def unit_values(key: str, section: str = "Service") -> list[str]:
    """Every value of a key that may repeat (Environment=): configparser keeps the last only."""
    values, current = [], None
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            current = line.strip("[]")
        elif current == section and line.startswith(f"{key}="):
            values.append(line.split("=", 1)[1])
    return values
