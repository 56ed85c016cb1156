"""Spatial algebra: orientations, frames, moving frames, general motion and mass properties."""
