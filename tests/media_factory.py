"""Small real media for tests: videos made once per session with ffmpeg, copied on demand."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from PIL import Image


@dataclass(frozen=True)
class VideoSpec:
    width: int = 320
    height: int = 240
    codec: str = "libx264"
    audio_language: str | None = None
    subtitle: bool = False
    container: str = "mkv"
    seconds: int = 1  # longer for a browser that plays, leaves and resumes

    @property
    def key(self) -> str:
        length = "" if self.seconds == 1 else f"-{self.seconds}s"
        return f"{self.width}x{self.height}-{self.codec}-{self.audio_language}-{self.subtitle}{length}.{self.container}"


class MediaFactory:
    """Makes each distinct video once (ffmpeg) and copies it wherever asked."""

    def __init__(self, cache_dir: Path) -> None:
        self._cache = cache_dir
        self._cache.mkdir(parents=True, exist_ok=True)

    def video(self, path: Path, spec: VideoSpec = VideoSpec()) -> Path:
        source = self._cache / spec.key
        if not source.exists():
            _encode(source, spec)
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, path)
        return path

    @staticmethod
    def image(path: Path, size: tuple[int, int] = (200, 300), color: str = "navy") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", size, color).save(path)
        return path

    @staticmethod
    def text(path: Path, content: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return path


def _encode(target: Path, spec: VideoSpec) -> None:
    args = [
        "ffmpeg", "-v", "error", "-y",
        "-f", "lavfi", "-i", f"testsrc=size={spec.width}x{spec.height}:rate=5",
        "-f", "lavfi", "-i", "sine=frequency=440",
    ]
    subtitle_input = None
    if spec.subtitle:
        subtitle_input = target.with_suffix(".input.srt")
        subtitle_input.write_text("1\n00:00:00,000 --> 00:00:00,900\nHello\n")
        args += ["-i", str(subtitle_input)]
    args += ["-t", str(spec.seconds), "-map", "0:v", "-map", "1:a", "-c:v", spec.codec, "-c:a", "aac"]
    if spec.codec == "libx264":
        args += ["-preset", "ultrafast"]
    if spec.container == "mp4":
        args += ["-movflags", "+faststart", "-pix_fmt", "yuv420p"]  # what a browser's <video> plays
    if spec.audio_language:
        args += ["-metadata:s:a:0", f"language={spec.audio_language}"]
    if spec.subtitle:
        args += ["-map", "2:s", "-c:s", "srt", "-metadata:s:s:0", "language=eng"]
    args.append(str(target))
    subprocess.run(args, check=True, timeout=120)
    if subtitle_input is not None:
        subtitle_input.unlink()
