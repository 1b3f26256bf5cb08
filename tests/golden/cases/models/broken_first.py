def get_inputs(:
    return []
# a model file with a syntax error on its first line (golden tests of shapes)
