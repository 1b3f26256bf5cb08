# a model file with a syntax error (golden tests of shapes)
batch_size = 16
def get_inputs(:
    return []
