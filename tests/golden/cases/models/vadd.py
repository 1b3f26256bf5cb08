# placeholder model for the golden tests
