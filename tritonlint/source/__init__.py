"""Text to trees and places: outlines, positions, names, tree walks; no Triton semantics."""
