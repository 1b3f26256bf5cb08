# placeholder: same stem as models/softmax.py
