"""DLNA / UPnP AV MediaServer documents, pure: SOAP requests and answers, DIDL-Lite, descriptions.

The HTTP side (``reelhouse.http.dlna``) reads the catalogue and calls these;
nothing here does I/O.
"""
