"""What the run_scan tests share: a full Kodi movie NFO, a PNG of any size, playback-time probing."""

from __future__ import annotations

import io

from PIL import Image

from reelhouse.media.library_options import LibraryOptions

PLAYBACK = LibraryOptions(media_info_timing="playback")
MOVIE_NFO = """<?xml version="1.0" encoding="UTF-8"?>
<movie>
  <title>The Arrival</title><originaltitle>Arrival</originaltitle><sorttitle>Arrival, The</sorttitle>
  <year>2016</year><premiered>2016-11-10</premiered><plot>Linguists and aliens.</plot>
  <tagline>Why are they here?</tagline><runtime>116</runtime><mpaa>Rated PG-13</mpaa>
  <genre>Drama</genre><genre>Science Fiction</genre><studio>Paramount</studio><tag>aliens</tag>
  <country>United States</country>
  <ratings><rating name="imdb" max="10" default="true"><value>7.9</value><votes>700</votes></rating>
  <rating name="tomatometer" max="100"><value>94</value></rating></ratings>
  <uniqueid type="tmdb" default="true">329865</uniqueid><uniqueid type="imdb">tt2543164</uniqueid>
  <director>Denis Villeneuve</director><credits>Eric Heisserer</credits>
  <actor><name>Amy Adams</name><role>Louise Banks</role><order>0</order></actor>
  <actor><name>Jeremy Renner</name><role>Ian Donnelly</role><order>1</order></actor>
  <lockdata>true</lockdata>
</movie>
"""


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(out, "PNG")
    return out.getvalue()
