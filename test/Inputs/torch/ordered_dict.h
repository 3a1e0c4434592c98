// ddplint mock of <torch/ordered_dict.h> (LibTorch 1.13): an insertion
// ordered map; iterating yields OrderedDict::Item (key(), value(), *, ->).
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace torch {

template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item;
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(const OrderedDict& other) = default;
  OrderedDict& operator=(const OrderedDict& other) = default;
  OrderedDict(OrderedDict&& other) = default;
  OrderedDict& operator=(OrderedDict&& other) = default;
  ~OrderedDict() = default;
  /*implicit */ OrderedDict(std::initializer_list<Item> initializer_list) : items_(initializer_list) {}

  const std::string& key_description() const noexcept { return key_description_; }
  Item& front() { return items_.front(); }
  const Item& front() const { return items_.front(); }
  Item& back() { return items_.back(); }
  const Item& back() const { return items_.back(); }
  Item& operator[](size_t index) { return items_[index]; }
  const Item& operator[](size_t index) const { return items_[index]; }
  Value& operator[](const Key& key) { return *find(key); }
  const Value& operator[](const Key& key) const { return *find(key); }
  Value* find(const Key& key) noexcept {
    for (auto& item : items_)
      if (item.key() == key) return &item.value();
    return nullptr;
  }
  const Value* find(const Key& key) const noexcept {
    for (auto& item : items_)
      if (item.key() == key) return &item.value();
    return nullptr;
  }
  bool contains(const Key& key) const noexcept { return find(key) != nullptr; }
  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void reserve(size_t requested_capacity) { items_.reserve(requested_capacity); }
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    items_.emplace_back(Key(std::forward<K>(key)), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  Value& insert(Key key, Value&& value) {
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  void update(OrderedDict&& other);
  void update(const OrderedDict& other);
  void erase(const Key& key);
  void clear() { items_.clear(); }
  const std::vector<Item>& items() const noexcept { return items_; }
  ::std::vector<Key> keys() const {
    ::std::vector<Key> r;
    for (const auto& item : items_) r.push_back(item.key());
    return r;
  }
  ::std::vector<Value> values() const {
    ::std::vector<Value> r;
    for (const auto& item : items_) r.push_back(item.value());
    return r;
  }
  ::std::vector<std::pair<Key, Value>> pairs() const;

 private:
  ::std::vector<Item> items_;
  ::std::string key_description_{"Key"};
};

template <typename Key, typename Value>
class OrderedDict<Key, Value>::Item {
 public:
  Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
  Value& operator*() { return value(); }
  const Value& operator*() const { return value(); }
  Value* operator->() { return &value(); }
  const Value* operator->() const { return &value(); }
  const Key& key() const noexcept { return pair_.first; }
  Value& value() noexcept { return pair_.second; }
  const Value& value() const noexcept { return pair_.second; }
  const std::pair<Key, Value>& pair() const noexcept { return pair_; }

 private:
  ::std::pair<Key, Value> pair_;
};

} // namespace torch
