print("locus-bench: placeholder")
