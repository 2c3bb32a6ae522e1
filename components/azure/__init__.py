"""Azure components, one module per component; the names Azure requires up front and the GPU
size checks they share live in their own modules beside them (``names``, ``sizes``).
"""
