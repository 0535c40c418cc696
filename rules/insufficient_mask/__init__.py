"""TL104: a mask that is there but does not bound an axis the pointer walks."""
