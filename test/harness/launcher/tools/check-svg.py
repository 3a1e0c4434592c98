#!/usr/bin/env python3
"""check-svg.py FILE: parses FILE as XML (failing if it is not well formed),
checks that it is an SVG document, and prints what a reader would see: the
title, the y axis title, the legend labels and how many plotted lines and
points there are."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
if root.tag != NS + "svg":
    sys.exit(f"check-svg: root element is {root.tag}, not svg")
texts = [t.text or "" for t in root.iter(NS + "text")]
print("title:", texts[0])
print("y axis:", next(t for t in texts if t.startswith("max |W_rank0")))
polylines = list(root.iter(NS + "polyline"))
circles = list(root.iter(NS + "circle"))
print("lines:", len(polylines), "points:", len(circles))
# Legend entries are the texts right of the plot area.
legend = [t.text for t in root.iter(NS + "text")
          if float(t.get("x", "0")) > 550]
print("legend:", ", ".join(legend))
