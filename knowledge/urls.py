from django.urls import path

from knowledge import views

app_name = "knowledge"
urlpatterns = [path("api/kb/search/", views.search, name="search")]
