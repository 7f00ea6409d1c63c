"""Playback: a PlaybackRegistry supervising one PlaybackActor per live session."""
